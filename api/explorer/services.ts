import { ApiContext } from '../context'
import { Challenges } from './auth/challenges'
import { Passwords } from './auth/passwords'
import { Sessions } from './auth/sessions'
import { Mailer } from './mail'
import { Limits } from './rate-limits'

/** What the explorer routes are built from, made once per process by explorerRouter. */
export interface ExplorerServices {
    ctx: ApiContext
    mailer: Mailer
    limits: Limits
    sessions: Sessions
    challenges: Challenges
    /** Hashing and verification of passwords, in the bounded pool. */
    passwords: Passwords
    /** Public base of this API (ends in /api), for links in mail. */
    publicUrl: string
}
