// Compositions as Cantera writes them (examples/kinetics/composition.h): mole and mass
// fractions of h2o2's species, and every malformed entry named.
#include <doctest/doctest.h>

#include "examples/kinetics/composition.h"

using namespace dualjit::kinetics;

TEST_SUITE("kinetics") {
  TEST_CASE("compositions: mole fractions to mass fractions, and errors naming the entry") {
    const Mechanism m = load_mechanism("h2o2.yaml");
    const int h2 = m.species_index("H2"), o2 = m.species_index("O2"), ar = m.species_index("AR");
    const std::vector<double> Y = mass_fractions_from_moles(m, "H2:2, O2:1,AR:3.76");
    const double w = 2 * m.species[h2].molecular_weight + m.species[o2].molecular_weight +
                     3.76 * m.species[ar].molecular_weight;
    CHECK(Y[h2] == doctest::Approx(2 * m.species[h2].molecular_weight / w).epsilon(1e-15));
    CHECK(Y[ar] == doctest::Approx(3.76 * m.species[ar].molecular_weight / w).epsilon(1e-15));
    double sum = 0;
    for (double y : Y) sum += y;
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-15));
    const std::vector<double> Ym = mass_fractions(m, "O2: 0.25, AR: 0.75");
    CHECK(Ym[o2] == 0.25);
    CHECK(Ym[h2] == 0.0);
    CHECK_THROWS_WITH_AS(mass_fractions(m, "H2:1, CH4:1"), doctest::Contains("no species 'CH4'"),
                         MechanismError);
    CHECK_THROWS_WITH_AS(mass_fractions(m, "H2:1, H2:2"), doctest::Contains("given twice"),
                         MechanismError);
    CHECK_THROWS_WITH_AS(mass_fractions(m, "H2 1"), doctest::Contains("'H2 1' has no ':'"),
                         MechanismError);
    CHECK_THROWS_WITH_AS(mass_fractions(m, "H2:-1"), doctest::Contains("finite number >= 0"),
                         MechanismError);
    CHECK_THROWS_WITH_AS(mass_fractions(m, "H2:1x"), doctest::Contains("'H2:1x'"), MechanismError);
    CHECK_THROWS_WITH_AS(mass_fractions(m, "H2:0"), doctest::Contains("no positive amount"),
                         MechanismError);
  }
}
