-- Headless Neovim 0.7+ (Debian's): attach `orchestrate lsp` to buffers the way a user
-- would, and write what the editor shows as JSON to $LSP_OUT. Driven by tests/test_lsp.py.
--   a.py    edited, not saved: the diagnostics of the unsaved text, then the preferred
--           code action for F401 applied to the buffer;
--   main.go the syntax-only coverage note;
--   $LSP_MODE=crash: a.py's checker crashes; the messages the server showed, and
--           whether it still serves main.go afterwards.
local out = os.getenv("LSP_OUT")
local root = os.getenv("LSP_ROOT")
local crash = os.getenv("LSP_MODE") == "crash"
local result = { messages = {} }
vim.o.hidden = true

local function finish()
  local fh = assert(io.open(out, "w"))
  fh:write(vim.fn.json_encode(result))
  fh:close()
  vim.cmd("qall!")
end

local function code_of(d)
  return tostring(d.code or ((d.user_data or {}).lsp or {}).code or "")
end

local function has(ds, needle)
  for _, d in ipairs(ds) do
    if code_of(d):find(needle, 1, true) then
      return d
    end
  end
  return nil
end

local function shown(buf, needle)
  vim.wait(90000, function()
    return has(vim.diagnostic.get(buf), needle) ~= nil
  end, 100)
  local rows = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(rows, {
      lnum = d.lnum,
      col = d.col,
      severity = d.severity,
      message = d.message,
      code = code_of(d),
    })
  end
  return rows
end

local function open(rel, id)
  vim.cmd("edit " .. vim.fn.fnameescape(root .. "/" .. rel))
  local buf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(buf, id)
  return buf
end

local ok, err = pcall(function()
  local show = vim.lsp.handlers["window/showMessage"]
  vim.lsp.handlers["window/showMessage"] = function(e, res, ctx, config)
    table.insert(result.messages, { type = res.type, message = res.message })
    return show(e, res, ctx, config)
  end
  local id = vim.lsp.start_client({
    name = "orchestrate",
    cmd = { os.getenv("ORCHESTRATE_LSP_CMD"), "lsp" },
    root_dir = root,
  })
  local py = open("a.py", id)
  -- typed into the buffer, never written: the disk keeps the clean file
  vim.api.nvim_buf_set_lines(py, 0, 0, false, { "import os", "" })
  result.modified = vim.bo[py].modified
  if crash then
    result.crashed = shown(py, "coverage")
  else
    result.unsaved = shown(py, "F401")
    local f401 = has(vim.diagnostic.get(py), "F401")
    if f401 then
      local params = {
        textDocument = { uri = vim.uri_from_bufnr(py) },
        range = {
          start = { line = f401.lnum, character = f401.col },
          ["end"] = { line = f401.end_lnum or f401.lnum, character = f401.end_col or f401.col },
        },
        context = { diagnostics = {} },
      }
      local replies = vim.lsp.buf_request_sync(py, "textDocument/codeAction", params, 60000)
      for _, reply in pairs(replies or {}) do
        for _, action in ipairs(reply.result or {}) do
          if action.isPreferred and action.title:find("F401", 1, true) then
            result.action = action.title
            vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
          end
        end
      end
      result.fixed = vim.api.nvim_buf_get_lines(py, 0, -1, false)
    end
  end
  local go = open("main.go", id)
  result.go = shown(go, "coverage")
  local client = vim.lsp.get_client_by_id(id)
  result.alive = client ~= nil and not client.is_stopped()
  vim.lsp.stop_client(id)
  vim.wait(5000, function()
    return vim.lsp.get_client_by_id(id) == nil
  end, 100)
end)
if not ok then
  result.error = tostring(err)
end
finish()
