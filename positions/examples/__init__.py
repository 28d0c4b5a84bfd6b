"""Curated example positions shipped as package data (JSON saved positions)."""
