// Fixture: stands for the simulator's machine.hpp (layer host-simulator).
