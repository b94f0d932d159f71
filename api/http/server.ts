import * as http from 'http'
import { Express } from 'express'

export interface RunningServer {
    server: http.Server
    port: number
    close(): Promise<void>
}

/** Listens and resolves once the port is bound; close() stops accepting and ends idle keep-alive sockets. */
export function listen(app: Express, port: number, host?: string): Promise<RunningServer> {
    return new Promise((resolve, reject) => {
        const server = http.createServer(app)
        server.once('error', reject)
        server.listen(port, host, () => {
            server.off('error', reject)
            const bound = (server.address() as { port: number }).port
            resolve({
                server,
                port: bound,
                close: () => new Promise<void>((done) => {
                    server.close(() => done())
                    server.closeIdleConnections()
                }),
            })
        })
    })
}
