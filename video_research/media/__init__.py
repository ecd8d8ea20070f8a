"""Local media seen by the server itself, offline: probing, frames, contact sheets, scene
cuts, on-screen text (OCR) and speech (faster-whisper), with media downloads; decoded with PyAV (FFmpeg in its wheel; no system ffmpeg).

The CPU-heavy entry points (`probe.probe`, `frames.extract_frames`, `sheet.contact_sheet`,
`scenes.detect_scenes`, `ocr.read_screen_text`) are plain top-level functions: a path and
plain values in (with `MediaLimits`), plain data out. Handlers run them in a worker thread
today; the same signatures let a later change run them in a separate process.
"""
