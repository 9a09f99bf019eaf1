-- luacheck configuration for the ctxd Neovim plugin.
std = 'luajit'
globals = { 'vim' }
max_line_length = 160
files['spec/**/*_spec.lua'] = { std = '+busted' }
