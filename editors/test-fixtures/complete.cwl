# Fixture for the completion checks of the editor end-to-end tests (editors/nvim/test,
# editors/vscode/test): a valid CWL tool whose `hints` hold no MCP Tool hint yet. The tests add a
# line `  ` at the end and accept, through the editor's completion menu, the map-form `mcp:Tool`
# item, the `annotations` item and a value item, and compare the text with what they expect.
cwlVersion: v1.2
class: CommandLineTool

$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#

id: echo-region
label: Echo region identifier
doc: Returns the region identifier provided by the caller.

baseCommand: echo

inputs:
  region:
    type: string
    inputBinding:
      position: 1

outputs: {}

hints:
  ResourceRequirement:
    coresMin: 1
