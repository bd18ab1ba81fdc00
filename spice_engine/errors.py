"""The few exceptions the engine raises, each carrying what a user needs to act."""


class SpiceError(Exception):
    """Base class for every error the engine reports to its callers."""


class InputError(SpiceError):
    """The input (issue, diff, instance file) cannot be used as given."""


class FormatError(SpiceError):
    """A model answer did not validate against the expected schema."""


class ModelCallError(SpiceError):
    """A model request failed after the allowed retries."""

    def __init__(self, message: str, transient: bool = False, retry_singly: bool = False) -> None:
        super().__init__(message)
        self.transient = transient
        """True when the last failure was a timeout, rate limit or server error."""
        self.retry_singly = retry_singly
        """True when the request was refused as malformed (e.g. `n` unsupported)."""


class CostCapExceeded(SpiceError):
    """Voting on an item stopped because its spend would pass the configured cap."""


class NoValidVotesError(SpiceError):
    """Every vote for a dimension failed; no label can be given."""

    def __init__(self, dimension: str, errors: list[str], capped: bool = False) -> None:
        self.dimension = dimension
        self.errors = errors
        self.capped = capped
        """The cost cap stopped votes: trying again would stop at it again."""
        detail = "; ".join(dict.fromkeys(errors)) or "no votes were requested"
        super().__init__(f"no valid votes for {dimension}: {detail}")


class PromptError(SpiceError):
    """A prompt template is missing or cannot be rendered."""
