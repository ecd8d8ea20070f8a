"""Local media: speech recognition and media downloads (and, beside them, frames and on-screen text)."""
