"""Scripted stand-ins for the three model APIs, so the real host CLIs run offline."""

from .anthropic import AnthropicApi
from .base import Api, Reply, ScriptedServer
from .gemini import GeminiApi
from .openai_responses import OpenAIResponsesApi

__all__ = ["AnthropicApi", "Api", "GeminiApi", "OpenAIResponsesApi", "Reply", "ScriptedServer"]
