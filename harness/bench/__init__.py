"""`python -m harness bench`: DataLoader start-up and throughput measured on this machine."""
