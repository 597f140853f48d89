"""The benchmark harness behind ``python -m gpukit bench``: each case runs gpukit and its
baselines side by side in one process and reports medians and ratios."""
