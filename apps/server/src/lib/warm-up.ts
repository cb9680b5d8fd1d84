import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

type Id = string | number;

const requestId = (m: JSONRPCMessage): Id | undefined =>
  'method' in m && 'id' in m ? m.id : undefined;
const responseId = (m: JSONRPCMessage): Id | undefined =>
  !('method' in m) && 'id' in m ? (m.id ?? undefined) : undefined;

/**
 * Calls `then` once, on a later turn of the event loop, after the first answer to a
 * `tools/list` request has been handed to `transport` (install it after the server connected
 * the transport). Slow set-up started there (opening the memory database) never delays a
 * client's `initialize` or first `tools/list`; a tool call before that waits for the set-up
 * on its own. The transport's handlers are put back once it has fired.
 */
export function afterFirstToolsList(transport: Transport, then: () => void): void {
  const onmessage = transport.onmessage;
  const send = transport.send;
  const lists = new Set<Id>();
  let fired = false;
  transport.onmessage = (message, extra) => {
    const id = requestId(message);
    if (id !== undefined && (message as { method?: string }).method === 'tools/list') lists.add(id);
    onmessage?.call(transport, message, extra);
  };
  transport.send = async (message, options) => {
    await send.call(transport, message, options);
    const id = responseId(message);
    if (fired || id === undefined || !lists.has(id)) return;
    fired = true;
    transport.onmessage = onmessage;
    transport.send = send;
    setImmediate(then);
  };
}
