"""The video catalog, playlists, the watch queue and marathons."""
