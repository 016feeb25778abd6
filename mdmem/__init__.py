"""mdmem: an AI assistant's long-term memory about a person, as a vault of Markdown files."""

from .decide import Statement
from .errors import MdmemError
from .factfile import Fact
from .vault import Vault

__all__ = ["Fact", "MdmemError", "Statement", "Vault"]
__version__ = "0.1.0"
