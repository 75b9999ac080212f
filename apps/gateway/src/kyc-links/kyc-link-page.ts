import type { KycLinkPage } from '@corridor/contracts';

// The sandbox's hosted KYC page: plain HTML, no script, two forms. It stands in for the KYC
// vendor's flow, so a tester can drive a customer to APPROVED or REJECTED (and so resolve a
// verification waiting in PENDING_MANUAL_REVIEW) the way a real customer's outcome would.

const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character] ?? character,
  );

const layout = (title: string, body: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 36rem; margin: 3rem auto; padding: 0 1rem; color: #1b1b1f; }
.note { background: #fff4d6; border: 1px solid #e8c66a; padding: .75rem 1rem; border-radius: .5rem; }
form { display: inline-block; margin: 1rem .5rem 0 0; }
button { font-size: 1rem; padding: .6rem 1.4rem; border-radius: .4rem; border: 1px solid #888; cursor: pointer; }
button.approve { background: #1f7a3a; color: #fff; border-color: #1f7a3a; }
button.reject { background: #b3261e; color: #fff; border-color: #b3261e; }
</style>
</head>
<body>
${body}
</body>
</html>
`;

/** The page for an open link: who is being verified, and the two outcomes a tester may choose. */
export const openPage = (page: KycLinkPage, action: string): string =>
  layout(
    'Identity verification (sandbox)',
    `<h1>Identity verification</h1>
<p class="note"><strong>Sandbox.</strong> No documents are collected here: choose the outcome the KYC provider would report.</p>
<p>Customer <code>${escapeHtml(page.customerId)}</code> (${page.customerType === 'BUSINESS' ? 'KYB' : 'KYC'}). This link works once and ` +
      `expires at ${escapeHtml(page.expiresAt)}.</p>
<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="decision" value="APPROVE"><button class="approve" ` +
      `type="submit">Approve</button></form>
<form method="post" action="${escapeHtml(action)}"><input type="hidden" name="decision" value="REJECT"><button class="reject" ` +
      `type="submit">Reject</button></form>
`,
  );

/** Shown when there is nowhere to send the customer back to, or the link cannot be used. */
export const messagePage = (title: string, message: string): string =>
  layout(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>\n`);

/** Where the customer goes after deciding: the platform's redirectUri with the outcome added. */
export const redirectTarget = (redirectUri: string, kycStatus: string): string => {
  const url = new URL(redirectUri);
  url.searchParams.set('kycStatus', kycStatus);
  return url.toString();
};
