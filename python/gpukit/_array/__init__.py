"""Private helpers of gpukit's array classes."""
