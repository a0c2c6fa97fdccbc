" CWL documents are YAML (or JSON, a subset of YAML 1.2): use the YAML syntax.
if exists('b:current_syntax')
  finish
endif
runtime! syntax/yaml.vim
unlet! b:current_syntax
let b:current_syntax = 'cwl'
