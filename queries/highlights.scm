(boolean_scalar) @boolean

(null_scalar) @constant.builtin

[
  (double_quote_scalar)
  (single_quote_scalar)
  (block_scalar)
  (string_scalar)
] @string

[
  (integer_scalar)
  (float_scalar)
] @number

(comment) @comment

[
  (anchor_name)
  (alias_name)
] @label

(tag) @type

[
  (yaml_directive)
  (tag_directive)
  (reserved_directive)
] @attribute

(block_mapping_pair
  key: (flow_node
    [
      (double_quote_scalar)
      (single_quote_scalar)
    ] @property))

(block_mapping_pair
  key: (flow_node
    (plain_scalar
      (string_scalar) @property)))

(flow_mapping
  (_
    key: (flow_node
      [
        (double_quote_scalar)
        (single_quote_scalar)
      ] @property)))

(flow_mapping
  (_
    key: (flow_node
      (plain_scalar
        (string_scalar) @property))))

[
  ","
  "-"
  ":"
  ">"
  "?"
  "|"
] @punctuation.delimiter

[
  "["
  "]"
  "{"
  "}"
] @punctuation.bracket

[
  "*"
  "&"
  "---"
  "..."
] @punctuation.special

; MCP extension (cwl-mcp-lsp): the hint class and the keys of its fields and annotations.
((string_scalar) @type
  (#match? @type "^[A-Za-z_][A-Za-z0-9_.-]*:(Tool|ToolAnnotations|Annotations)$"))

(block_mapping_pair
  key: (flow_node
    (plain_scalar
      (string_scalar) @property.builtin))
  (#any-of? @property.builtin
    "useWhen" "doNotUseWhen" "aliases" "annotations"
    "readOnlyHint" "destructiveHint" "idempotentHint" "openWorldHint"))
