"""The warm engine: an optional long-lived process per project that answers `lint` requests.

`protocol` (where the socket is, the frames, strict validation), `client` (the thin
front the CLI calls first; it imports only the standard library and platformdirs) and
`engine` (the server loop; it runs the CLI's own entry in-process). README "Warm engine".
"""
