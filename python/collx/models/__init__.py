"""Cost models, one module per family: hier (rounds, link bytes and copies
fitted per variant), rma (LogGP from measured parameters)."""
