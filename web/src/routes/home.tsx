import { LEAD_FORM_ID, LeadForm } from '../components/LeadForm';
import { Shell } from '../components/Shell';
import { useTexts } from '../texts';

/** `/`: the landing page with the lead form. */
export function HomePage() {
  const home = useTexts().home;
  return (
    <Shell>
      <div className="container home">
        <section className="hero" aria-labelledby="home-title">
          <p className="eyebrow">{home.eyebrow}</p>
          <h1 id="home-title">{home.headline}</h1>
          <p className="lead">{home.lead}</p>
          <a className="button button-primary jump" href={`#${LEAD_FORM_ID}`}>
            {home.jump}
          </a>
          <h2 className="visually-hidden">{home.benefitsTitle}</h2>
          <ul className="benefits">
            {home.benefits.map((benefit) => (
              <li key={benefit.title}>
                <strong>{benefit.title}</strong>
                <span>{benefit.text}</span>
              </li>
            ))}
          </ul>
          <p className="limited">{home.limited}</p>
        </section>
        <LeadForm />
      </div>
    </Shell>
  );
}
