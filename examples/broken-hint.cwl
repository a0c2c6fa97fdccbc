cwlVersion: v1.2
class: CommandLineTool
id: count-lines
label: Count lines
doc: Counts the lines of a text file.
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  - class: mcp:Tool
    name: count lines
    annotations:
      readOnlyHint: yes
      openWorldHint: false
requirements:
  NetworkAccess:
    networkAccess: true
baseCommand: [wc, -l]
inputs:
  text:
    type: File
    inputBinding: {position: 1}
outputs:
  count:
    type: stdout
