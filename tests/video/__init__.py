"""Video analysis tools, sampling, comments and the analysis cache."""
