"""English and Chinese: tokens, language detection and the phrases mdmem says."""
