// A process that renders one page and then idles, as a server does between checks: render.test.ts sends it
// SIGTERM and looks for Chromium processes left behind. Run with `node --import tsx`; MAP is the host map.
import { checkVisibility } from '@/lib/checks/visibility/check';
import { closeRendererOnSignals } from '@/lib/checks/visibility/render';

closeRendererOnSignals();
void checkVisibility('https://site.test/', { hostMap: process.env.MAP }).then(({ report }) => {
  console.log(`rendered ${report.page.rendering.state}`);
  setInterval(() => {}, 60_000);
});
