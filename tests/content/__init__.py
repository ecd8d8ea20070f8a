"""Content analysis over many files: direct and Batch API jobs, compare."""
