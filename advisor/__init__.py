"""What users run: the `refuge` command line and the reports it prints."""
