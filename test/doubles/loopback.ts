import { createServer, IncomingMessage, Server, ServerResponse } from 'http'
import { AddressInfo } from 'net'

/** An HTTP server of a test double, listening on a free port of 127.0.0.1. */
export interface Loopback {
    url: string
    /** Drops open connections (clients keep them alive) and stops listening. */
    close(): Promise<void>
}

/** An HTTP server for an async handler whose failure answers 500 with its message as text. */
export function serveAsync(handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Server {
    return createServer((req, res) => {
        handle(req, res).catch((err) => {
            res.writeHead(500, { 'content-type': 'text/plain' })
            res.end(String((err as Error).message))
        })
    })
}

export async function listenLoopback(server: Server): Promise<Loopback> {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: async () => {
            server.closeAllConnections()
            await new Promise<void>((resolve) => server.close(() => resolve()))
        },
    }
}
