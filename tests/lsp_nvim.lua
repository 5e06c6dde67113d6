-- Headless Neovim 0.7+ (Debian's): attach `orchestrate lsp` to a buffer, wait for the
-- diagnostics it publishes, write them as JSON to $LSP_OUT. Driven by tests/test_lsp.py.
local out = os.getenv("LSP_OUT")

local function finish(result)
  local fh = assert(io.open(out, "w"))
  fh:write(vim.fn.json_encode(result))
  fh:close()
  vim.cmd("qall!")
end

local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("LSP_FILE")))
  local id = vim.lsp.start_client({
    name = "orchestrate",
    cmd = { os.getenv("ORCHESTRATE_LSP_CMD"), "lsp" },
    root_dir = os.getenv("LSP_ROOT"),
  })
  local attached = vim.lsp.buf_attach_client(0, id)
  vim.wait(90000, function()
    return #vim.diagnostic.get(0) > 0
  end, 200)
  local diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do
    local lsp = (d.user_data or {}).lsp or {}
    table.insert(diagnostics, {
      lnum = d.lnum,
      col = d.col,
      severity = d.severity,
      message = d.message,
      source = d.source,
      code = d.code or lsp.code,
    })
  end
  vim.lsp.stop_client(id)
  vim.wait(5000, function()
    return vim.lsp.get_client_by_id(id) == nil
  end, 100)
  finish({ attached = attached, diagnostics = diagnostics })
end)
if not ok then
  finish({ attached = false, error = tostring(err), diagnostics = {} })
end
