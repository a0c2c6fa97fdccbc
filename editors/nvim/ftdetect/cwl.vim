" *.cwl is CWL (Neovim 0.7; 0.8+ also gets it from vim.filetype.add in plugin/cwl_mcp.lua)
autocmd BufRead,BufNewFile *.cwl set filetype=cwl
