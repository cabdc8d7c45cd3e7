"""Renderers: results to text for people (terminal), CSV and JSON for machines."""
