"""Private helpers that word gpukit's errors."""
