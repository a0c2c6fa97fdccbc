cwlVersion: v1.2
class: CommandLineTool
id: echo-region
label: Echo region
doc: Echoes the region identifier given by the caller.
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
    title: Echo a region
    useWhen: the user wants a region identifier echoed back.
    annotations:
      readOnlyHint: true
      idempotentHint: true
      openWorldHint: false
baseCommand: echo
inputs:
  region:
    type: string
    label: Region
    doc: Region identifier to echo.
    inputBinding: {position: 1}
outputs:
  echoed:
    type: stdout
