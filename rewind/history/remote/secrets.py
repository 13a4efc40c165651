"""High-confidence secrets in text: the API keys and tokens of the common providers, private key
blocks and credentials written into URLs, found for the redaction of a shared conversation
(rewind.history.remote.redaction).

The providers' shapes are Yelp's detect-secrets' (its plugins' patterns, kept up by its
maintainers as providers change them), imported only when a redaction runs: it takes about a
third of a second to import, which neither the hook path nor a push that shares no conversation
pays. Only the plugins whose shape is the provider's own are used. Left out: the keyword and
entropy plugins, the IBM, Cloudant and Softlayer ones (a long enough word near ``password`` or
``key``, a hash, an id: ordinary text in a coding session), the IP addresses, Artifactory's
password shape (``AP`` and a hex digit starting a word), and the Discord and Telegram bot tokens
(three dotted runs of letters, digits and a colon: they match ordinary identifiers and can only
be looked for by running the pattern over every character). A few providers detect-secrets does
not know are added here (:data:`_OWN`), and a private key's whole block, where detect-secrets
finds its first line only.

Each pattern runs only on a text that holds one of its **anchors**, a fixed string every match
contains (``AKIA`` for an AWS access key): looking for a few fixed strings costs far less than
running a pattern over every character of a 50 MB transcript.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from typing import Any

# detect-secrets' plugin (module, class) -> its anchors: patterns one of which every match holds,
# each with a fixed start (a pattern that starts with fixed text is looked for as fast as the
# text alone). The forms a case-blind pattern's anchor is written in are each an anchor.
_PLUGINS: dict[tuple[str, str], tuple[str, ...]] = {
    ("aws", "AWSKeyDetector"): ("A(?:KIA|SIA|BIA|CCA|3T)", "aws", "AWS", "Aws"),
    ("github_token", "GitHubTokenDetector"): ("gh[pousr]_",),
    ("gitlab_token", "GitLabTokenDetector"): (
        "gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-",
        "GR1348941",
    ),
    ("slack", "SlackDetector"): ("xox", "XOX", "Xox", r"hooks\.slack\.com", r"HOOKS\.SLACK\.COM"),
    ("stripe", "StripeDetector"): ("k_live_",),
    ("jwt", "JwtTokenDetector"): ("eyJ",),
    ("npm", "NpmDetector"): ("_authToken",),
    ("pypi_token", "PypiTokenDetector"): ("pypi-",),
    ("twilio", "TwilioKeyDetector"): ("AC", "SK"),
    ("sendgrid", "SendGridDetector"): (r"SG\.",),
    ("mailchimp", "MailchimpDetector"): ("-us",),
    ("square_oauth", "SquareOAuthDetector"): ("sq0csp-",),
    ("azure_storage_key", "AzureStorageKeyDetector"): ("AccountKey=",),
    ("basic_auth", "BasicAuthDetector"): ("://", r":\\/\\/"),  # and as JSON may write it
    ("openai", "OpenAIDetector"): ("T3BlbkFJ",),
}

# Providers detect-secrets does not know: kind -> (pattern, anchor).
_OWN: dict[str, tuple[str, str]] = {
    "Anthropic API Key": (r"sk-ant-[a-z0-9]+-[A-Za-z0-9_\-]{80,}", "sk-ant-"),
    "Google API Key": (r"AIza[0-9A-Za-z_\-]{35}", "AIza"),
    "GitHub Token": (r"github_pat_[A-Za-z0-9_]{80,}", "github_pat_"),
    "Hugging Face Token": (r"(?<![A-Za-z0-9_])hf_[A-Za-z]{34}(?![A-Za-z0-9_])", "hf_"),
}

PRIVATE_KEY = "Private Key"
# The characters a token found may go on with: a secret is redacted to its end.
_TOKEN_GOES_ON = re.compile(r"[A-Za-z0-9_\-+/=]*")
# A private key's block, to its end line (or to the end of the text when it was cut off).
_KEY_BLOCK = re.compile(
    r"-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY( BLOCK|)-----.*?(?:-----END \1PRIVATE KEY\2-----|\Z)"
    r"|PuTTY-User-Key-File-\d+:.*?Private-MAC: *[0-9a-fA-F]+",
    re.DOTALL,
)
KEY_ANCHORS = (b"PRIVATE KEY", b"PuTTY-User-Key-File")  # the first line of a key's block


class Detector:
    """One kind of secret: what it is called in a marker, its anchors (patterns, for texts and
    for bytes), and what finds it."""

    __slots__ = ("byte_anchors", "find", "kind", "text_anchors")

    def __init__(self, kind: str, anchors: tuple[str, ...], find: Callable[[str], Any]) -> None:
        self.kind = kind
        self.text_anchors = tuple(re.compile(anchor) for anchor in anchors)
        self.byte_anchors = tuple(re.compile(anchor.encode()) for anchor in anchors)
        self.find = find  # text -> the secret values in it

    def may_be_in(self, text: str) -> bool:
        """Whether ``text`` holds one of the anchors."""
        return any(anchor.search(text) for anchor in self.text_anchors)


@lru_cache(maxsize=1)
def detectors() -> tuple[Detector, ...]:
    """Every detector, detect-secrets' plugins first (imported here, once)."""
    from importlib import import_module

    from detect_secrets.plugins.base import RegexBasedDetector

    found = []
    for (module, name), anchors in _PLUGINS.items():
        plugin = getattr(import_module(f"detect_secrets.plugins.{module}"), name)()
        if type(plugin).analyze_string is not RegexBasedDetector.analyze_string:
            finder = _whole_tokens(plugin.analyze_string)  # its own check (a JWT's parts)
        else:
            finder = _matches(tuple(plugin.denylist))
        found.append(Detector(plugin.secret_type, anchors, finder))
    for kind, (pattern, anchor) in _OWN.items():
        found.append(Detector(kind, (re.escape(anchor),), re.compile(pattern).findall))
    return tuple(found)


def _matches(patterns: tuple[re.Pattern[str], ...]) -> Callable[[str], list[str]]:
    """What ``patterns`` find in a text: the secret a pattern's group captures when it is one
    (the password of ``://user:password@``), else the whole match (a group that only starts
    the match, as ``(ghp|gho)_...`` does, is the token's kind, not the token)."""

    def find(text: str) -> list[str]:
        found = []
        for pattern in patterns:
            for match in pattern.finditer(text):
                whole = match.group(0)
                group = next((g for g in match.groups() if g), None)
                if group and not whole.startswith(group):
                    found.append(group)
                else:
                    found.append(whole + _goes_on(text, match.end()))
        return found

    return find


def _whole_tokens(finder: Callable[[str], Iterable[str]]) -> Callable[[str], list[str]]:
    """``finder``, each token it finds taken to its end (detect-secrets' JWT pattern stops
    before the signature)."""

    def find(text: str) -> list[str]:
        found = []
        for value in finder(text):
            at = text.find(value)
            while at >= 0:
                found.append(value + _goes_on(text, at + len(value)))
                at = text.find(value, at + len(value))
        return found

    return find


def _goes_on(text: str, at: int) -> str:
    """The token characters of ``text`` from ``at`` on."""
    going = _TOKEN_GOES_ON.match(text, at)
    return going.group(0) if going else ""


def secrets_in(text: str) -> Iterator[tuple[str, str]]:
    """The secrets in ``text``: each as (what the text holds, its kind), longest first so that
    a secret that holds another is replaced whole. Private key blocks are given whole."""
    found: dict[str, str] = {}
    if "PRIVATE KEY" in text or "PuTTY-User-Key-File" in text:
        for match in _KEY_BLOCK.finditer(text):
            found[match.group(0)] = PRIVATE_KEY
    for detector in detectors():
        if not detector.may_be_in(text):
            continue
        for value in detector.find(text):
            if isinstance(value, str) and len(value) >= 8:
                found.setdefault(value, detector.kind)
    yield from sorted(found.items(), key=lambda item: -len(item[0]))
