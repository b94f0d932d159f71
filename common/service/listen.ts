import * as http from 'http'
import { RequestListener } from 'http'

export interface RunningServer {
    server: http.Server
    port: number
    /** Stops accepting, ends idle keep-alive connections, and gives requests in flight DRAIN_MS to finish. */
    close(): Promise<void>
}

const DRAIN_MS = 2000

/** Serves app on port (0: any free one) and resolves once the port is bound. */
export function listen(app: RequestListener, port: number, host?: string): Promise<RunningServer> {
    return new Promise((resolve, reject) => {
        const server = http.createServer(app)
        server.once('error', reject)
        server.listen(port, host, () => {
            server.off('error', reject)
            resolve({
                server,
                port: (server.address() as { port: number }).port,
                close: () => new Promise<void>((done) => {
                    const drained = setTimeout(() => server.closeAllConnections(), DRAIN_MS)
                    server.close(() => {
                        clearTimeout(drained)
                        done()
                    })
                    server.closeIdleConnections()
                }),
            })
        })
    })
}
