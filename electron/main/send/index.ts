// Send (#15) and the way back from the signers (#16), one object for the IPC handlers.
import { BroadcastService } from './broadcast-service';
import { BumpAnyService } from './bump-any';
import { ComposeService } from './compose-service';
import { SendCore, type SendDeps } from './core';
import { DraftService } from './draft-service';
import { SignService } from './sign-service';

export class SendService {
  readonly core: SendCore;
  readonly compose: ComposeService;
  readonly drafts: DraftService;
  readonly sign: SignService;
  readonly broadcast: BroadcastService;
  /** Fee bumps of any unconfirmed wallet transaction (#28). */
  readonly bumpAny: BumpAnyService;

  constructor(deps: SendDeps, onSent: () => void = () => undefined) {
    this.core = new SendCore(deps);
    this.drafts = new DraftService(this.core);
    this.compose = new ComposeService(this.core, this.drafts);
    this.sign = new SignService(this.core, this.drafts);
    this.broadcast = new BroadcastService(this.core, this.drafts, onSent);
    this.bumpAny = new BumpAnyService(this.core, this.drafts, this.compose);
  }

  /** The drafts list, after following broadcast payments to their confirmation. */
  async list() {
    await this.broadcast.track().catch(() => 0);
    return this.drafts.list();
  }
}
