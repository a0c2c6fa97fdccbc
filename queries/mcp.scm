; Queries the language server runs (src/features/locate.rs, loaded with `include_str!`) to
; locate the MCP hint in the tree-sitter tree. tree-sitter keeps the well-formed parts of a
; document around an error region, so these still answer while the user is typing.

; `$namespaces` bindings, block form:  $namespaces:\n  mcp: https://…#
(block_mapping_pair
  key: (flow_node) @_namespaces
  value: (block_node
    (block_mapping
      (block_mapping_pair
        key: (flow_node) @namespace.prefix
        value: (flow_node) @namespace.uri)))
  (#match? @_namespaces "^[\"']?[$]namespaces[\"']?$"))

; `$namespaces` bindings, flow form (and JSON):  $namespaces: {mcp: "https://…#"}
(block_mapping_pair
  key: (flow_node) @_namespaces
  value: (flow_node
    (flow_mapping
      (flow_pair
        key: (flow_node) @namespace.prefix
        value: (flow_node) @namespace.uri)))
  (#match? @_namespaces "^[\"']?[$]namespaces[\"']?$"))

(flow_pair
  key: (flow_node) @_namespaces
  value: (flow_node
    (flow_mapping
      (flow_pair
        key: (flow_node) @namespace.prefix
        value: (flow_node) @namespace.uri)))
  (#match? @_namespaces "^[\"']?[$]namespaces[\"']?$"))

; Candidate hint classes, list form:  - class: mcp:Tool
(block_mapping_pair
  key: (flow_node) @_class
  value: (flow_node) @hint.class
  (#match? @_class "^[\"']?class[\"']?$")
  (#match? @hint.class "Tool[\"']?$"))

; Candidate hint classes, map form:  mcp:Tool:
(block_mapping_pair
  key: (flow_node) @hint.class
  (#match? @hint.class "Tool[\"']?$"))
