"""Text repair, the parser's first layer: a page's bytes -> clean text (decoding, mojibake,
line endings), line N staying line N. Reads nothing of the other layers."""
