import { createServer, IncomingMessage, Server, ServerResponse } from 'http'
import { AddressInfo } from 'net'

/** An HTTP server of a local network on 127.0.0.1: a given port (`npm start`) or a free one (tests). */
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

export async function listenLoopback(server: Server, port = 0): Promise<Loopback> {
    await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(port, '127.0.0.1', () => {
            server.off('error', reject)
            resolve()
        })
    })
    return {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: async () => {
            server.closeAllConnections()
            await new Promise<void>((resolve) => server.close(() => resolve()))
        },
    }
}
