"""The REST API version every request to GitHub names (a module of its own: the dashboard's
sign-in sends it too, and must not import PyGithub to know it)."""

GITHUB_API_VERSION = "2022-11-28"
"""Sent as `X-GitHub-Api-Version` on every REST and GraphQL request: GitHub answers a request
without it in its default version, which moves when GitHub retires one."""
