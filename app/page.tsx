export default function Home() {
  return (
    <main>
      <h1>Paid Agent Checks</h1>
      <p>Agent Payment Readiness Assessment and AI Visibility Check, 1.00 USD per fulfilled request.</p>
    </main>
  );
}
