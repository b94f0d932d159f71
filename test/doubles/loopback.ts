import { Server } from 'http'
import { AddressInfo } from 'net'

/** An HTTP server of a test double, listening on a free port of 127.0.0.1. */
export interface Loopback {
    url: string
    /** Drops open connections (clients keep them alive) and stops listening. */
    close(): Promise<void>
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
