"""Benchmarks: the build (build.py), the author's edit-to-page wait (serve.py), what a reader waits for in
Chromium (browser.py), and the GPU measurement suite (gpu/). Timings live here, never in the tests."""
