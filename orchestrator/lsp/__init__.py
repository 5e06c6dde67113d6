"""`orchestrate lsp`: a language server that shows the standard report in an editor.

The server is a presenter: each check is the lint use case (the same request as
`orchestrate lint --feedback PATH`, with the editor's unsaved text as an overlay), and
diagnostics, the coverage note and code actions are read from the report it returns.
It never writes the project: the editor applies the edits it offers.
"""
