"""Reporting: the live console view of a build and the reports it leaves behind."""
