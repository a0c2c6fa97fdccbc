# Fixture for the editor end-to-end tests (editors/nvim/test, editors/vscode/test).
# Deliberately broken MCP hints:
#  - `agent:Tool` uses the prefix `agent`, which `$namespaces` does not bind
#    (namespace-unbound); cwl2mcp would silently ignore it;
#  - `readOnlyHint: yes` there is a string under YAML 1.2, not a boolean;
#  - the `mcp:Tool` hint leaves annotations out, so MCP defaults apply.
# The `mcp:Tool` hint itself is valid, so the Tool derives (name from the id:
# echo-region -> echo_region under the default `extension` profile; its aliases go to
# `_meta` under the key `<metaPrefix>-aliases`, which the tests use to check settings).
cwlVersion: v1.2
class: CommandLineTool

$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#

id: echo-region
label: Echo region identifier
doc: Returns the region identifier provided by the caller.

hints:
  mcp:Tool:
    title: Echo a region
    aliases: [echo]
    annotations:
      readOnlyHint: true
  agent:Tool:
    annotations:
      readOnlyHint: yes

baseCommand: echo

inputs:
  region:
    type: string
    label: Region
    doc: Region identifier to echo.
    inputBinding:
      position: 1

outputs: {}
