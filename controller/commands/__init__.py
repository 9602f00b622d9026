"""One module per `takboard` subcommand; see `controller/cli.py` for the contract."""
