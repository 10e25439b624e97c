/** Normal and Student t distributions against scipy.stats 1.17 reference values. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { normalCdf, normalQuantile, normalSf, studentTCdf, studentTQuantile, studentTSf } from '../../src/stats/distributions.ts';
import { lnGamma, regularizedBeta } from '../../src/stats/special.ts';
import { assertClose } from './close.ts';

describe('normal distribution', () => {
  it('gives the published quantiles (scipy.stats.norm.ppf)', () => {
    assertClose(normalQuantile(0.975), 1.959963984540054); // norm.ppf(0.975)
    assertClose(normalQuantile(0.995), 2.5758293035489004); // norm.ppf(0.995)
    assertClose(normalQuantile(0.9), 1.2815515655446004); // norm.ppf(0.9)
    assertClose(normalQuantile(1e-10), -6.361340902404056); // norm.ppf(1e-10)
    assert.equal(normalQuantile(0.5), 0);
  });

  it('gives the CDF and upper tail (scipy.stats.norm.cdf)', () => {
    assertClose(normalCdf(1), 0.8413447460685429); // norm.cdf(1.0)
    assertClose(normalCdf(-2.5), 0.006209665325776132); // norm.cdf(-2.5)
    assertClose(normalCdf(6), 0.9999999990134123); // norm.cdf(6.0)
    assertClose(normalSf(6), 1 - 0.9999999990134123, 1e-6); // the tail itself, to the digits the CDF carries
  });

  it('rejects probabilities outside [0, 1]', () => {
    assert.throws(() => normalQuantile(1.5), /outside/);
  });
});

describe('Student t distribution', () => {
  it('gives the table quantiles t(0.975, df) (scipy.stats.t.ppf)', () => {
    assertClose(studentTQuantile(0.975, 1), 12.706204736174694); // t.ppf(0.975, 1)
    assertClose(studentTQuantile(0.975, 2), 4.302652729749462); // t.ppf(0.975, 2)
    assertClose(studentTQuantile(0.975, 5), 2.5705818356363146); // t.ppf(0.975, 5)
    assertClose(studentTQuantile(0.975, 10), 2.228138851986274); // t.ppf(0.975, 10)
    assertClose(studentTQuantile(0.975, 30), 2.0422724563012378); // t.ppf(0.975, 30)
    assertClose(studentTQuantile(0.995, 4), 4.604094871349992); // t.ppf(0.995, 4)
    assertClose(studentTQuantile(0.8, 28), 0.8546474855822227); // t.ppf(0.8, 28)
    assertClose(studentTQuantile(0.025, 3), -3.1824463052837086); // t.ppf(0.025, 3)
  });

  it('handles the real-valued degrees of freedom Welch produces', () => {
    assertClose(studentTQuantile(0.975, 7.704705701143818), 2.3214790055352603); // t.ppf(0.975, 7.704705701143818)
  });

  it('gives the CDF and upper tail (scipy.stats.t.cdf / t.sf)', () => {
    assertClose(studentTCdf(2, 5), 0.9490302605850708); // t.cdf(2.0, 5)
    assertClose(studentTSf(2, 5), 0.050969739414929174); // t.sf(2.0, 5)
    assertClose(studentTCdf(-1.3, 12.5), 0.10853100531714449); // t.cdf(-1.3, 12.5)
    assertClose(studentTSf(4.5, 3), 0.0102452061722267); // t.sf(4.5, 3)
    assertClose(studentTSf(10, 28), 4.812412415598529e-11); // t.sf(10, 28): the far tail keeps its relative precision
  });

  it('refuses non-positive degrees of freedom', () => {
    assert.throws(() => studentTQuantile(0.975, 0), /degrees of freedom/);
  });
});

describe('special functions', () => {
  it('gives ln Γ at integers and halves (ln 4! and ln √π)', () => {
    assertClose(lnGamma(5), Math.log(24));
    assertClose(lnGamma(0.5), 0.5 * Math.log(Math.PI));
  });

  it('gives I_x(a, b) of closed forms: I_x(1, 1) = x and I_x(2, 1) = x²', () => {
    assertClose(regularizedBeta(0.3, 1, 1), 0.3);
    assertClose(regularizedBeta(0.7, 2, 1), 0.49);
  });
});
