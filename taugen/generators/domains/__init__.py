"""Built-in domains' code (world, tools, problems). Each subpackage exposes ``DOMAIN``."""
