// SPDX-License-Identifier: BSD-3-Clause
// argv[1] launches of an empty Kokkos parallel_for of one element, in launches() alone.
#include <Kokkos_Core.hpp>

#include <cstdlib>

__attribute__((noinline)) static void launches(long n)
{
	for (long i = 0; i < n; i++)
		Kokkos::parallel_for("empty", 1, KOKKOS_LAMBDA(const int) {});
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? std::atol(argv[1]) : 1000;
	Kokkos::initialize(argc, argv);
	launches(n);
	Kokkos::finalize();
	return 0;
}
