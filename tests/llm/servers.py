"""Fake servers with the quirks of real ones, for the LLM tests."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from stateforge.fakellm.chat import ApiError, Reply
from stateforge.fakellm.server import FakeLLMServer


class StrictKeywordsServer(FakeLLMServer):
    """A server whose strict mode, like some hosted APIs, rejects length and range keywords in schemas."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.refused = 0
        self.schemas: list[dict[str, Any]] = []

    def handle(self, method: str, target: str, headers: Mapping[str, str], body: bytes) -> Reply:
        if target.endswith("/chat/completions"):
            schema = json.loads(body)["response_format"]["json_schema"]["schema"]
            if "maxLength" in json.dumps(schema):
                self.refused += 1
                message = "Invalid schema for response_format 'rows': 'maxLength' is not permitted."
                return ApiError(400, message, param="response_format").reply
            self.schemas.append(schema)
        return super().handle(method, target, headers, body)
