import { PLANS } from '@/lib/credits/plans';
import { formatUsd } from '@/lib/price';

/** The plans of spec 2.4; each card's id is the plan id, so /pricing#bundle-25 lands on it. Works without JavaScript. */
export function PlanCards() {
  return (
    <div className="grid">
      {PLANS.map((plan) => (
        <section key={plan.id} id={plan.id} className="card" aria-labelledby={`${plan.id}-title`}>
          <h2 id={`${plan.id}-title`}>{plan.name}</h2>
          <p className="price">
            {formatUsd(plan.priceCents)} USD{plan.billing === 'monthly' ? <small> a month</small> : <small> once</small>}
          </p>
          <p>
            {plan.billing === 'monthly' ? `${plan.calls} calls every month` : `${plan.calls} calls, valid ${plan.validity}`} ·{' '}
            {formatUsd(Math.round(plan.priceCents / plan.calls))} USD a call
          </p>
          <p className="muted">{plan.description}</p>
          <form method="post" action="/api/billing/checkout">
            <input type="hidden" name="plan" value={plan.id} />
            <button type="submit" className="button">
              {plan.billing === 'monthly' ? 'Subscribe' : 'Buy'} {plan.name.toLowerCase()}
              <span className="visually-hidden"> plan</span>
            </button>
          </form>
        </section>
      ))}
    </div>
  );
}
