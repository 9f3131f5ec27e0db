// Every model-visible text of the MCP bridge (README "Model experience" lists them verbatim).

const MAX_SERVER_TEXT = 4_000

function clip(text: string): string {
  return text.length <= MAX_SERVER_TEXT
    ? text
    : `${text.slice(0, MAX_SERVER_TEXT)} […${text.length - MAX_SERVER_TEXT} more characters]`
}

export const mcpMessages = {
  /** `isError: true` from the server: TOOL_ERROR with the server's own text. */
  toolReportedError: (server: string, tool: string, text: string) =>
    `The MCP tool "${tool}" of the server "${server}" reported an error: ${clip(text.trim() === '' ? '(no error text)' : text.trim())}`,
  notRunning: (server: string, name: string, why: string) =>
    `The MCP server "${server}" is not running (${clip(why)}), so ${name} cannot be called now. Use another way to do this, or tell the user that the server is down.`,
  stillConnecting: (server: string, name: string) =>
    `The MCP server "${server}" is still connecting, so ${name} cannot be called yet. Call it again in a moment.`,
  reconnecting: (server: string, name: string, why: string) =>
    `The connection to the MCP server "${server}" broke (${clip(why)}); toolgate is reconnecting. Call ${name} again in a moment; if the call changed something, check its effect first.`,
  protocolError: (server: string, tool: string, code: number, message: string) =>
    `The MCP server "${server}" refused the call to "${tool}" (MCP error ${code}: ${clip(message)}). Check the arguments against the tool's schema; if they are right, the server has a problem.`,
  missingStructured: (server: string, tool: string) =>
    `The MCP tool "${tool}" of the server "${server}" declares an output schema but returned no structured content; this is a bug in the server. Tell the user if the result is needed.`,
  changedTool: (server: string, name: string) =>
    `The MCP server "${server}" no longer offers ${name} (its tool list changed). Use the tools it lists now.`,
} as const
