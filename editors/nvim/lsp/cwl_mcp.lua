-- Neovim 0.11+: `vim.lsp.enable('cwl_mcp')` finds this file on 'runtimepath'. Override any field
-- with vim.lsp.config('cwl_mcp', { cmd = {...}, settings = { cwlMcp = { profile = 'cwl2mcp' } } }).
return require('cwl_mcp').config()
