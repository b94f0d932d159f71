import { Router } from 'express'
import { version } from '../../../package.json'

export function configRoutes(router: Router): void {
    router.get('/config/backend-version', (_req, res) => {
        res.json({ backend_version: `v${version}` })
    })
}
