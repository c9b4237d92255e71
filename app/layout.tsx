import type { ReactNode } from 'react';

export const metadata = {
  title: 'Paid Agent Checks',
  description: 'Agent Payment Readiness Assessment and AI Visibility Check, 1.00 USD per fulfilled request.',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
