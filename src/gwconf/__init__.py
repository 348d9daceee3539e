"""gwconf: point every AI client at one model gateway, safely."""

__version__ = "0.1.0"
